/** CTA overlays: the list is documented under `cta`; real servers send it under `overlay`. */
import { listAction, type Listable } from '../shared/resource.js';

const OVERLAY: Listable = {
  listPath: 'api/overlay',
  keys: ['cta', 'overlay'],
  columns: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    { key: 'type', header: 'Type' },
    { key: 'date', header: 'Created' },
  ],
};

export const list = listAction(OVERLAY);
