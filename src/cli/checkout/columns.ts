/** The columns of a webhook in tables and CSV (webhook list, register, update). */
export const WEBHOOK_COLUMNS = ['id', 'name', 'callbackUrl', 'createdAt', 'updatedAt']
