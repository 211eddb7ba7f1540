// The inventory files the CLI reads (--inventory), read strictly: a syntax error names the file, line
// and column; an unknown key names itself, its line and the closest known key; a bad value names its
// line too. (State files are read as strictly by JsonFileStore; see state-file.ts.)

import { type Inventory, validateInventory } from '../../hardware/inventory.js';
import { jsonPosition, parseJson } from '../../shared/file-positions.js';
import { sayInFile } from './error-words.js';

/** An inventory file's text, validated (validateInventory); errors say `--inventory FILE:LINE:COL`. */
export function inventoryFromText(text: string, file: string): Inventory {
  const place = { origin: file, label: `--inventory ${file}`, text, position: jsonPosition };
  try {
    return validateInventory(parseJson(text, 'INVALID_INVENTORY', file), file);
  } catch (error) {
    throw sayInFile(error, place);
  }
}
