/** CTA overlays: the list is documented under `cta`; real servers send it under `overlay`. */
import { listAction, type Resource } from '../shared/resource.js';

const OVERLAY: Resource = {
  command: 'overlay',
  noun: 'CTA overlay',
  listPath: 'api/overlay',
  keys: ['cta', 'overlay'],
  itemPath: (id) => `api/overlay/${id}`,
  columns: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    { key: 'type', header: 'Type' },
    { key: 'date', header: 'Created' },
  ],
};

export const list = listAction(OVERLAY);
