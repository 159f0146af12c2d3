/** The console's addresses, for the sections that answer them and the views that link to them. */
const accountPath = (account: string) => `/admin/accounts/${encodeURIComponent(account)}`;

export const membersPath = (account: string) => `${accountPath(account)}/members`;
export const memberPath = (account: string, id: number) => `${membersPath(account)}/${id}`;
export const importPath = (account: string) => `${membersPath(account)}/import`;
export const overviewPath = (account: string) => `${accountPath(account)}/overview`;
export const registrationsPath = (account: string) => `${accountPath(account)}/registrations`;
export const memberPagesPath = (account: string) => `${accountPath(account)}/member-pages`;
export const settingsPath = (account: string) => `${accountPath(account)}/settings`;
export const mailPath = (account: string) => `${accountPath(account)}/mail`;
export const keysPath = (account: string) => `${accountPath(account)}/keys`;
export const operatorsPath = (account: string) => `${accountPath(account)}/operators`;
export const webhooksPath = (account: string) => `${accountPath(account)}/webhooks`;
export const plansPath = (account: string) => `${accountPath(account)}/plans`;
