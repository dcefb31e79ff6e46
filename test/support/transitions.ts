import { type Prediction } from '../../shared/domain/prediction.ts';
import { transition, type PredictionEvent, type PredictionPolicy } from '../../shared/domain/transition.ts';

/** Applies events in order under `policy`, as the state machine would; a refused one throws its error. */
export const applier =
  (policy: PredictionPolicy) =>
  (prediction: Prediction, ...events: PredictionEvent[]): Prediction =>
    events.reduce((current, event) => {
      const next = transition(current, event, policy);
      if (!next.ok) throw next.error;
      return next.value;
    }, prediction);
