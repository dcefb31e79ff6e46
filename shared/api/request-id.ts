/** A caller's `x-request-id` that is kept (functions/http/middleware.ts); another is replaced by a new UUID. */
export const REQUEST_ID_FORMAT = /^[\x21-\x7e]{1,200}$/;
