// The shapes of test clocks (API.md part D, "Test clocks").
import { Type, type Static } from '@sinclair/typebox';
import { StoredObject } from '../http/resource-schemas.ts';
import { Nullable, StringEnum, Timestamp } from '../http/schemas.ts';

export const TestClockCreate = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    frozenTime: Timestamp,
  },
  {
    additionalProperties: false,
    title: 'TestClockCreate',
    examples: [{ name: 'Annual renewal', frozenTime: '2027-01-31T10:00:00.000Z' }],
  },
);
export type TestClockCreate = Static<typeof TestClockCreate>;

export const TestClockAdvance = Type.Object(
  { frozenTime: Timestamp },
  {
    additionalProperties: false,
    title: 'TestClockAdvance',
    examples: [{ frozenTime: '2027-03-01T00:00:00.000Z' }],
  },
);
export type TestClockAdvance = Static<typeof TestClockAdvance>;

export const TestClock = StoredObject('TestClock', 'test_clock', 'clock_…', {
  name: Nullable(Type.String()),
  frozenTime: Timestamp,
  status: StringEnum(['ready', 'advancing'], {
    description: '`advancing` while an advance runs what falls due; `ready` after.',
  }),
  advancingTo: Nullable(Timestamp),
});
export type TestClock = Static<typeof TestClock>;

export const DeletedTestClock = Type.Object(
  { id: Type.String(), object: Type.Literal('test_clock'), deleted: Type.Literal(true) },
  { title: 'DeletedTestClock' },
);
