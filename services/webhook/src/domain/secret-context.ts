/** The additional authenticated data binding a sealed secret to its webhook. */
export const secretContext = (webhookId: string) => `webhook:${webhookId}`;
