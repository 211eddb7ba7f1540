// splitDevices: Backend.AI's multi-agent device split (shared, auto-split, manual). In progress.
import type { Kernels } from './kernels.js';

/** How a host's devices are divided between agents. */
export type SplitMode = 'shared' | 'auto-split' | 'manual';

/** A device: its ID, and the slots it contributes (e.g. { 'cuda.device': 1, 'cuda.mem': 85899345920 }). */
export type SplitDevice = string | { id: string; slots?: Record<string, number> };

/** Request of splitDevices (see DESIGN.md). */
export type SplitRequest = {
  agents: string[];
  devices: Record<string, SplitDevice[]>;
  mode: SplitMode;
  amounts?: Record<string, number>;
  sharedDeviceNames?: string[];
  reserved?: Record<string, number>;
  manual?: Record<string, Record<string, string[] | number>>;
};

/** Result of splitDevices. */
export type SplitResult = {
  assignments: Record<string, Record<string, string[]>>;
  amounts: Record<string, Record<string, number>>;
  slots: Record<string, Record<string, number>>;
  scaling: Record<string, Record<string, number>>;
  warnings: Array<{ code: string; message: string }>;
};

/** Splits devices between agents. */
export function splitDevices(_kernels: Kernels, _request: SplitRequest): SplitResult {
  throw new Error('splitDevices: in progress');
}
