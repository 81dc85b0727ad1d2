"""replyguard serve: the checker as an HTTP service (FastAPI + uvicorn; the `serve` extra).

Modules, each small and named for what it holds:

- config.py    ServeConfig: the TOML file, command-line overrides and secrets from the environment
- eventloop.py run(main): the service on uvloop's event loop when installed, else asyncio's
- app.py       create_app(config) -> FastAPI; ROUTER_MODULES lists the modules whose `router`
               the app includes (a new route module adds its name there, one line)
- service.py   Service: what the routes share (config, engine pool, session store, metrics),
               reached in a route with `service: Service = Depends(get_service)`
- pool.py      EnginePool: worker processes, one Engine each; `await pool.check(case_dict)`,
               `await pool.call(fn, *args)` for any module-level fn(worker, *args)
- replica.py   Replica: one worker process and the socket the event loop reaches it over
- worker.py    what runs inside a worker process (the Worker and the functions pool.call sends)
- sessions.py  SessionStore: conversations kept server-side in SQLite or PostgreSQL
- errors.py    ApiError and the OpenAI error envelope every failure is answered in
- auth.py      bearer (or x-api-key) keys: the `require_key` dependency
- limits.py    body size (413), reply length (422) limits
- metrics.py   Prometheus metrics (requests, latency per stage, recommendations, flags)
- logs.py      JSON log lines carrying the request id
- api_*.py     the routes: check, sessions, operations
"""
