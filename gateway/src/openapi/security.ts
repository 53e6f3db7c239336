import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

/**
 * The three ways a caller proves who it is, as OpenAPI security schemes. The RouteBook names them
 * in each operation (`admin` routes use `userToken`).
 */
export function registerSecuritySchemes(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'ak-<32 characters>',
    description: 'An API key: `Authorization: Bearer ak-` followed by 32 characters. Used by the task API (`/v1/...`).',
  });
  registry.registerComponent('securitySchemes', 'userToken', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'user token',
    description: "An account's user token: `Authorization: Bearer <API_TOKEN>`. Used by the docs API (`/api/v1/...`); admin-only operations need the admin account's token.",
  });
  registry.registerComponent('securitySchemes', 'formToken', {
    type: 'apiKey',
    in: 'query',
    name: 'token',
    description:
      "An account's user token sent as the form field `token` of the `application/x-www-form-urlencoded` body (key management, `/apikeys/*`). " +
      'OpenAPI has no form-field scheme, so this is declared as `token`; the server reads it from the body only, and the field is also part of each operation\'s request body schema.',
    'x-tollgate-in': 'form',
  });
  registry.registerComponent('securitySchemes', 'sessionCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: 'tollgate_session',
    description:
      "The web console's session (`POST /api/v1/session`), an alternative to the user token wherever the user token is accepted (docs API, key management, billing, apps). " +
      'State-changing calls made with it must also send `X-CSRF-Token` (returned by the session endpoints). See docs/console.md.',
  });
}
