import { dirname } from 'node:path';

/** Folder of the swagger-ui-dist package: the page's scripts and styles, served locally (no CDN). */
export const swaggerUiAssets = dirname(require.resolve('swagger-ui-dist/package.json'));

/** The files the page loads; nothing else of the package is served (its index.html points at a remote petstore). */
export const SWAGGER_UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png', 'favicon-16x16.png'];

/** The `/docs` page; asset and document URLs are relative so it also works behind a path prefix. */
export const referencePage = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Tollgate API reference</title>
    <link rel="stylesheet" type="text/css" href="docs/swagger-ui.css" />
    <link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="docs/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="docs/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script>
      window.onload = function () {
        window.ui = SwaggerUIBundle({
          url: 'openapi.json',
          dom_id: '#swagger-ui',
          deepLinking: true,
          presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
          layout: 'StandaloneLayout',
        });
      };
    </script>
  </body>
</html>
`;
