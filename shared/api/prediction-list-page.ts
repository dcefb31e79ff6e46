import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { Prediction } from '../domain/prediction.ts';
import type { ListPosition, OwnedPredictionsPage } from '../ports/prediction-store.ts';
import { listPageUrl, type ListFilters } from './prediction-list.ts';
import { withFileUrls } from './output-urls.ts';
import { toPredictionView, type PredictionView } from './prediction-view.ts';
import type { PredictionListBody } from './prediction-view-schema.ts';

/** Lambda answers at most 6 MB: a page ends at about this much JSON and links on to the rest. */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/**
 * A prediction as GET /predictions/{id} shows it, except that only an output stored inline comes
 * with it. One kept in the outputs bucket (megabytes each) is not read for a list: a hundred of
 * them would outgrow the response. It shows `output: null`; its `urls.get` gives the output.
 */
export const listedView = (prediction: Prediction, catalog: Pick<ModelCatalog, 'catalogModel'>): PredictionView =>
  toPredictionView(prediction, {
    includeCost: true,
    catalog,
    output:
      prediction.status === 'succeeded' && prediction.output.kind === 'inline'
        ? withFileUrls(prediction.output.value, prediction)
        : null,
  });

const positionOf = (prediction: Prediction): ListPosition => ({ createdAt: prediction.createdAt, id: prediction.id });

/** The page as the response shows it, cut short (at least one result) where it would outgrow `maxBytes`. */
export const listBody = (
  page: OwnedPredictionsPage,
  apiBase: string,
  filters: ListFilters,
  catalog: Pick<ModelCatalog, 'catalogModel'>,
  maxBytes: number = MAX_PAGE_BYTES,
): PredictionListBody => {
  const results: PredictionView[] = [];
  let bytes = 0;
  for (const prediction of page.predictions) {
    const view = listedView(prediction, catalog);
    bytes += Buffer.byteLength(JSON.stringify(view)) + 1;
    if (bytes > maxBytes && results.length > 0) break;
    results.push(view);
  }
  const lastShown = page.predictions[results.length - 1];
  const older = results.length < page.predictions.length && lastShown ? positionOf(lastShown) : page.older;
  return {
    results,
    next: older ? listPageUrl(apiBase, filters, { toward: 'older', position: older }) : null,
    previous: page.newer ? listPageUrl(apiBase, filters, { toward: 'newer', position: page.newer }) : null,
  };
};
