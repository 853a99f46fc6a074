/** Custom splash pages (read only): one list, collection `splash`. */
import type { Model } from './model.js';

export const splash: Model = {
  kind: 'splash',
  noun: 'splash page',
  command: 'splash',
  list: 'api/splash',
  keys: ['splash'],
  item: (id) => `api/splash/${id}`,
  key: (item) => (typeof item.name === 'string' ? item.name : undefined),
  listFields: ['id', 'name', 'date'],
};
