"""/docs: Swagger UI served from the `swagger-ui-bundle` package, so it works offline.

FastAPI's own /docs page loads Swagger UI from a CDN (a blank page without internet, and a
third-party script on a server that can run commands) and starts it with an inline script,
which the Content-Security-Policy forbids. This page loads the package's files from
`/docs/assets/` and its start-up code from `/docs/init.js`. ReDoc has no packaged copy, so
/redoc is off.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

DOCS_PATH = "/docs"
ASSETS_PATH = "/docs/assets"

_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{title} - API</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="{assets}/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{assets}/swagger-ui-bundle.js"></script>
  <script src="{docs}/init.js"></script>
</body>
</html>
"""

# The packaged Swagger UI (4.x) renders OpenAPI 3.0 documents only and refuses FastAPI's 3.1
# one, so the page fetches the document and shows it as 3.0 (the schemas render the same;
# /openapi.json itself is unchanged).
_INIT_JS = """"use strict";
fetch("{openapi}")
  .then((response) => response.json())
  .then((spec) => {{
    spec.openapi = "3.0.3";
    window.ui = SwaggerUIBundle({{
      spec: spec,
      dom_id: "#swagger-ui",
      deepLinking: true,
      validatorUrl: null,
      presets: [SwaggerUIBundle.presets.apis],
      layout: "BaseLayout",
    }});
  }});
"""


def swagger_ui_folder() -> Path:
    """The folder of the installed Swagger UI files."""
    from swagger_ui_bundle import swagger_ui_path

    return Path(str(swagger_ui_path))


def add_offline_docs(app: FastAPI) -> None:
    """Serve /docs (build the app with `docs_url=None, redoc_url=None`)."""
    page = _PAGE.format(title=app.title, assets=ASSETS_PATH, docs=DOCS_PATH)
    script = _INIT_JS.format(openapi=app.openapi_url)
    app.mount(ASSETS_PATH, StaticFiles(directory=swagger_ui_folder()), name="swagger-ui")

    @app.get(DOCS_PATH, include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(page)

    @app.get(f"{DOCS_PATH}/init.js", include_in_schema=False)
    async def docs_init() -> Response:
        return Response(script, media_type="text/javascript")
