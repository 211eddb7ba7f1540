// The DRA room's errors: AllocationErrors whose message and field are cut to a bounded length,
// since names and values from Kubernetes objects may be huge.
import { AllocationError, type AllocationErrorCode } from '../../shared/errors.js';

/** Longest message an error carries (names and values from the input are cut to fit). */
const MAX_MESSAGE = 2000;

/** An AllocationError whose message is at most MAX_MESSAGE characters (inputs may hold huge names). */
export function draError(code: AllocationErrorCode, message: string, options: { field?: string; details?: Record<string, unknown>; cause?: unknown } = {}): AllocationError {
  const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}… (${message.length} chars)` : message;
  const field = options.field !== undefined && options.field.length > MAX_MESSAGE ? `${options.field.slice(0, MAX_MESSAGE)}…` : options.field;
  return new AllocationError(code, text, { ...options, ...(field !== undefined ? { field } : {}) });
}
