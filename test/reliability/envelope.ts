// What every error answer must look like: the one envelope, a documented code (ERROR_CODES)
// with the status that code always has, and the request id of the Request-Id header.
import * as errors from '../../src/errors.ts';

/** code → status, read from the error classes themselves, so new codes are covered at once. */
export const STATUS_OF_CODE: ReadonlyMap<string, number> = (() => {
  const map = new Map<string, number>();
  for (const value of Object.values(errors)) {
    if (typeof value !== 'function' || !(value.prototype instanceof errors.ApiError)) continue;
    const ErrorClass = value as unknown as new (...args: string[]) => errors.ApiError;
    const instance = new ErrorClass('x', 'x');
    map.set(instance.code, instance.status);
  }
  return map;
})();

const DOCUMENTED: ReadonlySet<string> = new Set(errors.ERROR_CODES);

/** Null when `reply` is a well-formed answer; otherwise what is wrong with it. */
export function envelopeProblem(reply: {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}): string | null {
  const requestId = reply.headers.get('request-id');
  if (!requestId) return `no Request-Id header (status ${reply.status})`;
  if (reply.status < 400) return null;
  const error = reply.body?.error;
  if (typeof error !== 'object' || error === null) {
    return `status ${reply.status} without the error envelope: ${reply.text.slice(0, 200)}`;
  }
  if (!DOCUMENTED.has(error.code)) return `undocumented code ${JSON.stringify(error.code)}`;
  if (STATUS_OF_CODE.get(error.code) !== reply.status) {
    return `code ${error.code} with status ${reply.status} (documented: ${STATUS_OF_CODE.get(error.code)})`;
  }
  if (typeof error.message !== 'string' || error.message === '') return 'no message';
  if (error.requestId !== requestId) return 'error.requestId differs from Request-Id';
  if (/\bat \S+\.(ts|js):\d+|node_modules|SELECT |INSERT /.test(reply.text)) {
    return `internals in the error: ${reply.text.slice(0, 200)}`;
  }
  return null;
}
