import { DeleteQueueCommand, ListQueuesCommand } from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { STACK_NAME } from '../../infra/app.ts';
import { WAITER_QUEUE_NAMES } from '../../shared/adapters/waiter-queue-names.ts';
import { parsePredictionId } from '../../shared/domain/ids.ts';
import { createPrediction, localPredictionStore, localSqs } from '../support/api.ts';

const SYNC = { headers: { prefer: 'SYNC' } };

/** The waiter queues in the runtime's SQS: the API process makes one. */
const waiterQueues = async (): Promise<string[]> => {
  const { QueueUrls = [] } = await localSqs().send(
    new ListQueuesCommand({ QueueNamePrefix: WAITER_QUEUE_NAMES.prefixOf(STACK_NAME) }),
  );
  return QueueUrls;
};

describe('a synchronous wait, told of the end on its process’s waiter queue (architecture: Synchronous waits)', () => {
  it('answers many waits at once with their ended predictions, one queue serving the API process', async () => {
    const texts = ['один', 'два', 'три', 'четыре', 'пять', 'шесть'];
    const answers = await Promise.all(texts.map((text) => createPrediction({ text }, SYNC)));
    for (const [index, answer] of answers.entries())
      expect(answer.json).toMatchObject({ status: 'succeeded', output: { text: texts[index] } });
    expect(await waiterQueues()).toHaveLength(1);
  });

  it('still answers when its notice is lost (its queue removed mid-wait), and the process makes itself another queue', async () => {
    await createPrediction({ text: 'the queue is there' }, SYNC);
    const before = await waiterQueues();
    expect(before).toHaveLength(1);

    const waiting = createPrediction({ text: 'lost notice', sleep: 1.5 }, SYNC);
    // The create has recorded its waiter (the queue now removed) well before the model ends.
    await sleep(500);
    for (const url of before) await localSqs().send(new DeleteQueueCommand({ QueueUrl: url }));
    const answer = await waiting;
    expect(answer.json).toMatchObject({ status: 'succeeded', output: { text: 'lost notice' } });
    const id = parsePredictionId(answer.json.id);
    if (id === null) throw new Error(`${answer.json.id} is not a prediction id`);
    expect((await localPredictionStore().get(id))?.waiter).toBe(before[0]);

    const again = await createPrediction({ text: 'a new queue' }, SYNC);
    expect(again.json).toMatchObject({ status: 'succeeded', output: { text: 'a new queue' } });
    const after = await waiterQueues();
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
  });

  it('records no waiter on a prediction nobody waits for', async () => {
    const created = await createPrediction({ text: 'no one waits' });
    const id = parsePredictionId(created.json.id);
    if (id === null) throw new Error(`${created.json.id} is not a prediction id`);
    expect((await localPredictionStore().get(id))?.waiter).toBeNull();
  });
});
