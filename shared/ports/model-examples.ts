import type { Page, PageRequest } from '../domain/page.ts';

/**
 * A prediction an operator shows on its model's page (`GET /models/{owner}/{name}/examples`): a
 * copy made when it is marked (shared/api/example-view.ts says what is copied), kept apart from
 * the prediction, whose data goes at the end of its retention.
 */
export interface ModelExample {
  readonly model: string;
  readonly predictionId: string;
  /** When it was marked: examples list in this order, the first is the model's `default_example`. */
  readonly addedAt: string;
  /** The copy, as every caller is shown it. */
  readonly prediction: Readonly<Record<string, unknown>>;
}

/** The port to a model's examples. */
export interface ModelExamples {
  /** Marks it; marking a prediction again replaces its copy and keeps its place. */
  add(example: ModelExample): Promise<void>;
  /** False when the prediction is not an example of `model`. */
  remove(model: string, predictionId: string): Promise<boolean>;
  /** In the order they were marked. */
  list(model: string, page: PageRequest): Promise<Page<ModelExample>>;
}
