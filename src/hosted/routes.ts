// HTTP for the hosted invoice page, outside /v1 and without an API key: GET /i/{token} (HTML),
// /i/{token}/pdf|ubl|cii (the stored documents), /i/{token}/credit-notes/{number}/pdf|ubl|cii
// (those of the invoice's credit notes) and /i/assets/page.css. Not in the OpenAPI
// document, which describes the JSON API: the page is for people (README, "Hosted invoice
// page").
//
// Its own headers on every answer, the API's replaced: no referrer (the URL is the
// credential), no indexing, no caching (the page shows the invoice's state now), and a CSP
// that loads nothing but the page's own stylesheet and runs no script at all. Each client
// address has its own request budget (HOSTED_PAGE_RATE_LIMIT a minute, src/http/rate-limit.ts);
// beyond it a small HTML page with Retry-After. Whatever does not open an invoice (a token
// unknown, replaced or expired, a malformed one, any other path under /i/) gets the same plain
// 404 page in the reader's language (Accept-Language), and nothing more.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { RoutePlugin } from '../http/plugin.ts';
import { ApiError } from '../errors.ts';
import type { HostedDocument } from './service.ts';
import { acceptedLocale, invoicePage, messagePage, STYLESHEET } from './views.ts';

const PAGE_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
};
const HTML = 'text/html; charset=utf-8';

// Mail programs and link checkers add tracking parameters: a page does not refuse them.
const AnyQuery = Type.Object({}, { additionalProperties: true });
const TokenParams = Type.Object({ token: Type.String() });
const CreditNoteParams = Type.Object({ token: Type.String(), number: Type.String() });
const FORMATS = ['pdf', 'ubl', 'cii'] as const;

/** How many segments below /i/ the request's path is: the message page's stylesheet is relative. */
function depthBelowPage(request: FastifyRequest): number {
  const path = request.url.split('?')[0] ?? '';
  const below = path.replace(/^.*?\/i\//, '');
  return Math.max(0, below.split('/').length - 1);
}

function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const locale = acceptedLocale(request.headers['accept-language']);
  return reply
    .code(404)
    .type(HTML)
    .header('content-language', locale)
    .send(messagePage(locale, 'hosted.linkInvalid', depthBelowPage(request)));
}

/** A stored document, as a download. */
function download(reply: FastifyReply, document: HostedDocument): FastifyReply {
  return reply
    .type(document.contentType)
    .header('content-disposition', `attachment; filename="${document.filename}"`)
    .send(document.content);
}

export const hostedPageRoutes: RoutePlugin = async (app, { hostedPage, limits }) => {
  const limited: onRequestHookHandler = (request, reply, done) => {
    limits.admitPageRequest(request.ip).then((retryAfter) => {
      if (retryAfter === 0) return done();
      const locale = acceptedLocale(request.headers['accept-language']);
      reply
        .code(429)
        .type(HTML)
        .header('retry-after', String(retryAfter))
        .header('content-language', locale)
        .send(messagePage(locale, 'hosted.rateLimited', depthBelowPage(request)));
    }, done);
  };

  await app.register(
    async (page) => {
      // After the app's own onRequest hook, which set the API's headers: these replace them.
      page.addHook('onRequest', (_request, reply, done) => {
        reply.headers(PAGE_HEADERS);
        done();
      });
      page.setNotFoundHandler((request, reply) => notFound(request, reply));
      page.setErrorHandler((error, request, reply) => {
        // A path parameter the router or a guard refused is just another link that opens nothing.
        if (error instanceof ApiError && error.status < 500) return notFound(request, reply);
        request.log.error({ err: error }, 'hosted page failed');
        return reply.code(500).type(HTML).send('<!doctype html><title>Error</title><h1>Error</h1>');
      });
      const route = { config: { auth: false }, onRequest: limited };

      page.get(
        '/:token',
        { ...route, schema: { hide: true, params: TokenParams, querystring: AnyQuery } },
        async (request, reply) => {
          const { token } = request.params as { token: string };
          const view = await hostedPage.page(token);
          if (!view) return notFound(request, reply);
          return reply.type(HTML).header('content-language', view.lang).send(invoicePage(view));
        },
      );

      for (const format of FORMATS) {
        page.get(
          `/:token/${format}`,
          { ...route, schema: { hide: true, params: TokenParams, querystring: AnyQuery } },
          async (request, reply) => {
            const { token } = request.params as { token: string };
            const document = await hostedPage.invoiceDocument(token, format);
            return document ? download(reply, document) : notFound(request, reply);
          },
        );

        // A credit note's documents, by its number among the credit notes of the token's invoice.
        page.get(
          `/:token/credit-notes/:number/${format}`,
          { ...route, schema: { hide: true, params: CreditNoteParams, querystring: AnyQuery } },
          async (request, reply) => {
            const { token, number } = request.params as { token: string; number: string };
            const document = await hostedPage.creditNoteDocument(token, number, format);
            return document ? download(reply, document) : notFound(request, reply);
          },
        );
      }

      // Not counted against the address: the browser asks for it with every first page view,
      // and it is the same for everyone. Its URL carries a version of its content.
      page.get(
        '/assets/page.css',
        { config: { auth: false }, schema: { hide: true, querystring: AnyQuery } },
        async (_request, reply) =>
          reply
            .type('text/css; charset=utf-8')
            .header('cache-control', 'public, max-age=31536000, immutable')
            .send(STYLESHEET),
      );
    },
    { prefix: '/i' },
  );
};
