/** CTA overlays (read only): the list is documented under `cta`; real servers send it under `overlay`. */
import type { Model } from './model.js';

export const overlays: Model = {
  kind: 'overlays',
  noun: 'overlay',
  command: 'overlay',
  list: 'api/overlay',
  keys: ['cta', 'overlay'],
  item: (id) => `api/overlay/${id}`,
  key: (item) => (typeof item.name === 'string' ? item.name : undefined),
  listFields: ['id', 'type', 'name', 'date'],
};
