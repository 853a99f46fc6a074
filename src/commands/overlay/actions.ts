/** CTA overlays: read only (the list is documented under `cta`; real servers send it under `overlay`). */
import { listAction } from '../shared/resource.js';

export const list = listAction('overlays', [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  { key: 'type', header: 'Type' },
  { key: 'date', header: 'Created' },
]);
