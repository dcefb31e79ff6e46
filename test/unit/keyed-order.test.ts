import { describe, expect, it } from 'vitest';
import { BARRIER, KeyedOrder, type OrderClaim } from '../../local/keyed-order.ts';

/** Lets every admitted piece of work that can start, start. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Work that records when it starts and ends only when the test says. */
const harness = () => {
  const order = new KeyedOrder();
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const submit = (name: string, claim: OrderClaim) => {
    const finished = new Promise<void>((resolve) => finishers.set(name, resolve));
    return order.run(claim, async () => {
      started.push(name);
      await finished;
      return name;
    });
  };
  const finish = async (name: string) => {
    finishers.get(name)?.();
    await settle();
  };
  return { order, started, submit, finish };
};

const writes = (...keys: string[]): OrderClaim => ({ kind: 'keys', reads: [], writes: keys });
const reads = (...keys: string[]): OrderClaim => ({ kind: 'keys', reads: keys, writes: [] });

describe('keyed order (the local DynamoDB proxy orders calls by the items they touch)', () => {
  it('runs work on different keys side by side, and work on one key one after another in arrival order', async () => {
    const { started, submit, finish } = harness();
    void submit('a1', writes('a'));
    void submit('b1', writes('b'));
    void submit('a2', writes('a'));
    void submit('a3', writes('a'));
    await settle();
    expect(started).toEqual(['a1', 'b1']);
    await finish('a1');
    expect(started).toEqual(['a1', 'b1', 'a2']);
    await finish('a2');
    expect(started).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('lets readers of a key share it; a writer waits for the readers before it, and later readers for the writer', async () => {
    const { started, submit, finish } = harness();
    void submit('r1', reads('k'));
    void submit('r2', reads('k'));
    void submit('w', writes('k'));
    void submit('r3', reads('k'));
    await settle();
    expect(started).toEqual(['r1', 'r2']);
    await finish('r1');
    expect(started).toEqual(['r1', 'r2']);
    await finish('r2');
    expect(started).toEqual(['r1', 'r2', 'w']);
    await finish('w');
    expect(started).toEqual(['r1', 'r2', 'w', 'r3']);
  });

  it('takes all the keys of a transaction at once when it arrives: later work on any of them waits, and none deadlocks', async () => {
    const { started, submit, finish } = harness();
    void submit('a', writes('a'));
    void submit('ab', writes('a', 'b'));
    // b is free now, but the transaction that arrived before holds it.
    void submit('b', writes('b'));
    void submit('ba', writes('b', 'a'));
    await settle();
    expect(started).toEqual(['a']);
    await finish('a');
    expect(started).toEqual(['a', 'ab']);
    await finish('ab');
    expect(started).toEqual(['a', 'ab', 'b']);
    await finish('b');
    expect(started).toEqual(['a', 'ab', 'b', 'ba']);
  });

  it('runs a barrier after everything before it, and everything after it after it', async () => {
    const { started, submit, finish } = harness();
    void submit('a', writes('a'));
    void submit('free', reads());
    void submit('barrier', BARRIER);
    void submit('b', writes('b'));
    void submit('free-after', reads());
    await settle();
    expect(started).toEqual(['a', 'free']);
    await finish('free');
    expect(started).toEqual(['a', 'free']);
    await finish('a');
    expect(started).toEqual(['a', 'free', 'barrier']);
    await finish('barrier');
    expect(started).toEqual(['a', 'free', 'barrier', 'b', 'free-after']);
  });

  it('passes on what the work answers or throws, and forgets every key once its work has ended, failed or not', async () => {
    const order = new KeyedOrder();
    const answered = order.run(writes('x', 'y'), () => Promise.resolve(42));
    const failed = order.run(reads('x'), () => Promise.reject(new Error('the emulator broke')));
    expect(order.claimedKeys).toBe(2);
    await expect(answered).resolves.toBe(42);
    await expect(failed).rejects.toThrow('the emulator broke');
    expect(order.claimedKeys).toBe(0);
    await expect(order.run(writes('x'), () => Promise.resolve('after a failure'))).resolves.toBe('after a failure');
  });
});
