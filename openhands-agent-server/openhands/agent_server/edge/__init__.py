"""The server's HTTP edge: who may call it and what it accepts, before any route runs.

trust.py           which Host names and Origins this server answers (DNS rebinding, CSRF)
body_limit.py      the request body cap, enforced while the body streams (413)
headers.py         the security headers every response carries (CSP, framing, sniffing)
guard.py           EdgeGuard: the ASGI middleware applying all of the above, and the key
error_handlers.py  how exceptions become JSON answers (4xx, 503/507 storage, 500)
docs.py            /docs: Swagger UI served from the installed package, never from a CDN
"""
