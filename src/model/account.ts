/** The account: one record, no list. Real servers also send `planid`; `expires` may be null. */
export const ACCOUNT_PATH = 'api/account';
export const ACCOUNT_UPDATE_PATH = 'api/account/update';
