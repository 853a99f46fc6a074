/** Enumerations of `linkctl api`, shared by the definition (help, validation) and the completions. */
export const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type ApiMethod = (typeof METHODS)[number];
