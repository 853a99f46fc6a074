/** Custom splash pages: one list, collection `splash`. */
import { listAction, type Listable } from '../shared/resource.js';

const SPLASH: Listable = {
  listPath: 'api/splash',
  keys: ['splash'],
  columns: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    { key: 'date', header: 'Created' },
  ],
};

export const list = listAction(SPLASH);
