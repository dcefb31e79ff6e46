import { listBody } from '../../shared/api/prediction-list-page.ts';
import { LIST_PAGE_SIZE, parseListRequest } from '../../shared/api/prediction-list.ts';
import { withInputRead } from '../../shared/use-cases/read-input.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { viewForCaller } from './present.ts';
import { apiBaseOf } from './public-url.ts';
import { json } from './respond.ts';

/** GET /api/v1/predictions: the caller's own predictions, newest first, in cursor pages. */
export const handler = httpHandler(async (event, _context, deps) => {
  const request = parseListRequest(event.queryStringParameters);
  if (!request.ok) throw request.error;
  const { filters, cursor } = request.value;
  const listed = await deps.store.listOwned(accountOf(event), {
    ...filters,
    toward: cursor?.toward ?? 'older',
    ...(cursor ? { after: cursor.position } : {}),
    limit: LIST_PAGE_SIZE,
  });
  // Large inputs are kept by reference: each is read in, as GET /predictions/{id} reads it.
  const page = {
    ...listed,
    predictions: await Promise.all(listed.predictions.map((p) => withInputRead(p, deps.outputs))),
  };
  const body = listBody(page, apiBaseOf(event), filters, deps.catalog);
  return json(200, { ...body, results: body.results.map(viewForCaller(event)) });
});
