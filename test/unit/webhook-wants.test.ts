import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS, webhookWants } from '../../shared/domain/prediction.ts';

describe('which events go to a prediction’s webhook (webhookWants)', () => {
  it('with no filter, only the end; with one, exactly what it names; with no webhook, nothing', () => {
    const noFilter = { webhook: 'https://example.com/hook', webhookEvents: null };
    expect(WEBHOOK_EVENTS.filter((event) => webhookWants(noFilter, event))).toEqual(['completed']);
    const filtered = { webhook: 'https://example.com/hook', webhookEvents: ['start', 'logs'] as const };
    expect(WEBHOOK_EVENTS.filter((event) => webhookWants(filtered, event))).toEqual(['start', 'logs']);
    const none = { webhook: null, webhookEvents: ['start', 'output', 'logs', 'completed'] as const };
    expect(WEBHOOK_EVENTS.filter((event) => webhookWants(none, event))).toEqual([]);
  });
});
