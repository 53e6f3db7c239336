import { Router, type Request } from 'express';
import { z } from 'zod';
import '../http/route-book';
import type { Bill } from '@tollgate/protos/billing';
import type { GatewayDeps } from '../deps';
import { requireUser, userOf } from '../auth/user-token';
import { billCsv } from '../billing/bill-csv';
import { decimalInt } from '../http/form-numbers';
import { rpcFor } from '../http/request-id';

const KINDS = ['agent', 'workflow', 'aiapp', 'chatbot', 'passthrough'] as const;
const BASES = ['per_execution', 'per_request', 'per_input_token', 'per_output_token', 'per_second'] as const;
const id = (description: string) => decimalInt(1, 2_147_483_647).openapi({ description });
const amount = z.string().openapi({ description: 'Decimal amount (¥), as a string to keep it exact', example: '12.5' });

const billLine = z.object({ kind: z.string(), app_id: z.string(), api_key_id: z.number().int(), count: z.number().int(), amount });
const billSchema = z.object({
  account_id: z.number().int(),
  month: z.string(),
  currency: z.literal('¥'),
  frozen: z.boolean().openapi({ description: 'true once the month is over: the figures no longer change' }),
  total: amount,
  generated_at: z.string(),
  lines: z.array(billLine),
});
const usageSchema = z.object({
  account_id: z.number().int(),
  api_key_id: z.number().int().nullable(),
  from: z.string(),
  to: z.string(),
  total: amount,
  rows: z.array(z.object({ day: z.string(), kind: z.string(), count: z.number().int(), amount })),
});
const priceSchema = z.object({ kind: z.enum(KINDS), basis: z.enum(BASES), unit_price: amount, updated_at: z.string() });

const billQuery = z.object({
  account_id: id("Admin only: another account's bill (default: your own)").optional(),
  format: z.enum(['json', 'csv']).optional().openapi({ description: 'csv for export (also chosen by Accept: text/csv)' }),
});
const usageQuery = z.object({
  from: z.string().max(40).optional().openapi({ description: 'ISO 8601 date or time, inclusive (default: start of this month, UTC)' }),
  to: z.string().max(40).optional().openapi({ description: 'ISO 8601 date or time, exclusive (default: start of tomorrow, UTC); at most 366 days after from' }),
  api_key_id: id('Only this key of yours').optional(),
  account_id: id('Admin only: another account (default: your own)').optional(),
});
const priceBody = z.object({
  kind: z.enum(KINDS),
  basis: z.enum(BASES),
  unit_price: z.union([z.string().regex(/^\d{1,14}(\.\d{1,6})?$/, 'must be a non-negative decimal with at most 6 decimal places'), z.number().nonnegative()]),
}).strict();

const errors = { 401: { description: 'Missing or unknown user token' }, 403: { description: "Not allowed (another account's data, or not an admin)" }, 422: { description: 'Invalid parameter' } };

const billJson = (b: Bill) => ({
  account_id: b.accountId,
  month: b.month,
  currency: '¥' as const,
  frozen: b.frozen,
  total: b.total,
  generated_at: b.generatedAt,
  lines: b.lines.map((l) => ({ kind: l.kind, app_id: l.appId, api_key_id: l.apiKeyId, count: l.count, amount: l.amount })),
});

const wantsCsv = (req: Request, format: string | undefined) => format === 'csv' || (format === undefined && req.accepts(['application/json', 'text/csv']) === 'text/csv');

/** `/v1/billing/*`: monthly bills (JSON or CSV), usage by day and kind, and the price table. Authenticated by the user token (Bearer). */
export function billingRoutes(deps: GatewayDeps): Router {
  const router = Router();
  const { billing } = deps.upstreams;
  const tags = ['Billing'];
  const anyUser = [requireUser(deps)];

  deps.book.add(
    router,
    {
      method: 'get',
      path: '/v1/billing/bills/:month',
      summary: "An account's bill for a month (UTC): totals by kind, app and key from the ledger",
      description: 'The current month is computed on demand; a past month is frozen on its first read. `?format=csv` or `Accept: text/csv` exports CSV.',
      tags,
      security: 'userToken',
      params: z.object({ month: z.string().openapi({ description: 'YYYY-MM', example: '2026-11' }) }),
      query: billQuery,
      before: anyUser,
      responses: { 200: { description: 'The bill', schema: billSchema }, ...errors },
    },
    async ({ params, query }, req, res) => {
      const bill = await billing.getBill({ actor: userOf(res).actor, accountId: query.account_id ?? 0, month: params.month }, rpcFor(res));
      if (!wantsCsv(req, query.format)) return void res.json(billJson(bill));
      res.setHeader('Content-Disposition', `attachment; filename="bill-${bill.accountId}-${bill.month}.csv"`);
      res.type('text/csv; charset=utf-8').send(billCsv(bill));
    },
  );

  deps.book.add(
    router,
    {
      method: 'get',
      path: '/v1/billing/usage',
      summary: 'Charges of your account (or one of its keys) per day and kind over a time range',
      tags,
      security: 'userToken',
      query: usageQuery,
      before: anyUser,
      responses: { 200: { description: 'Usage rows (none for an api_key_id that is not one of your keys)', schema: usageSchema }, ...errors },
    },
    async ({ query }, _req, res) => {
      const r = await billing.queryUsage({ actor: userOf(res).actor, accountId: query.account_id ?? 0, apiKeyId: query.api_key_id ?? 0, from: query.from ?? '', to: query.to ?? '' }, rpcFor(res));
      res.json({ account_id: r.accountId, api_key_id: query.api_key_id ?? null, from: r.from, to: r.to, total: r.total, rows: r.rows });
    },
  );

  deps.book.add(
    router,
    { method: 'get', path: '/v1/billing/prices', summary: 'The price table (kind × basis)', tags, security: 'userToken', before: anyUser, responses: { 200: { description: 'Prices', schema: z.object({ items: z.array(priceSchema) }) }, 401: errors[401] } },
    async (_input, _req, res) => {
      const { items } = await billing.listPrices({}, rpcFor(res));
      res.json({ items: items.map((p) => ({ kind: p.kind, basis: p.basis, unit_price: p.unitPrice, updated_at: p.updatedAt })) });
    },
  );

  deps.book.add(
    router,
    {
      method: 'put',
      path: '/v1/billing/prices',
      summary: 'Set one price (admin); applies to the next admission, no restart',
      tags,
      security: 'admin',
      body: priceBody,
      before: [requireUser(deps, { permission: 'admin' })],
      responses: { 200: { description: 'The price now in force', schema: priceSchema }, ...errors },
    },
    async ({ body }, _req, res) => {
      const p = await billing.setPrice({ actor: userOf(res).actor, price: { kind: body.kind, basis: body.basis, unitPrice: String(body.unit_price), updatedAt: '' } }, rpcFor(res));
      res.json({ kind: p.kind, basis: p.basis, unit_price: p.unitPrice, updated_at: p.updatedAt });
    },
  );
  return router;
}
