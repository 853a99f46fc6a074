/** Custom splash pages: one list, collection `splash`. */
import { listAction, type Resource } from '../shared/resource.js';

const SPLASH: Resource = {
  command: 'splash',
  noun: 'Splash page',
  listPath: 'api/splash',
  keys: ['splash'],
  itemPath: (id) => `api/splash/${id}`,
  columns: [
    { key: 'id', header: 'ID' },
    { key: 'name', header: 'Name' },
    { key: 'date', header: 'Created' },
  ],
};

export const list = listAction(SPLASH);
