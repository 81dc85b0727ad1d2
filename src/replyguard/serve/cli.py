"""`replyguard serve`: the HTTP service (needs the `serve` extra).

The engines are built before the port opens, so a KB, rules or config that cannot be used is
a one-line error and exit 2, as everywhere in the CLI. This module is imported for every
command (to build the parser), so FastAPI and uvicorn are imported only when serving.
"""

from __future__ import annotations

import argparse

from replyguard.errors import ReplyguardError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the HTTP service (see docs/service.md)")
    p.add_argument("--kb", help="the knowledge base to serve (.json, .csv, .tsv)")
    p.add_argument("--rules", metavar="DIR", help="user rules directory (overrides shipped)")
    p.add_argument("--config", metavar="FILE", help="the service's TOML config file")
    p.add_argument("--upstream", metavar="URL", help="OpenAI-compatible endpoint to proxy to")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to listen on (default 8080)")
    p.add_argument("--workers", type=int, help="engine processes checking in parallel")
    p.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from replyguard.serve import eventloop, logs
        from replyguard.serve.app import create_app
        from replyguard.serve.config import load_config
        from replyguard.serve.guard import ProxySettings
        from replyguard.serve.service import Service
    except ImportError as exc:
        raise ReplyguardError(
            f"replyguard serve needs the serve extra ({exc.name} is missing): "
            "pip install 'replyguard[serve]'"
        ) from None
    config = load_config(args.config).with_overrides(
        kb=args.kb,
        rules=args.rules,
        upstream_url=args.upstream,
        host=args.host,
        port=args.port,
        workers=args.workers,
    )
    ProxySettings.from_table(config.tables.get("proxy", {}), args.config or "config")
    logs.configure(args.log_level)

    async def serve() -> None:
        service = await Service.start(config)
        app = create_app(config, service)
        server = uvicorn.Server(
            uvicorn.Config(app, host=config.host, port=config.port, log_config=None)
        )
        await server.serve()

    eventloop.run(serve())
    return 0
