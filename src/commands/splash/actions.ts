/** Custom splash pages: read only, one list. */
import { listAction } from '../shared/resource.js';

export const list = listAction('splash', [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  { key: 'date', header: 'Created' },
]);
