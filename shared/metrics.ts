/** The CloudWatch namespace of prognoz's own metrics (emitted as EMF by Powertools Metrics). */
export const METRICS_NAMESPACE = 'prognoz';
