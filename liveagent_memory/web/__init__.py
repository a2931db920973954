"""The local web bridge: a loopback HTTP service over the named-command table (issue 16).

A front end like the CLI and the app (docs/ARCHITECTURE.md "Layers"): `guard.py` holds the
bridge's protection rules (token, Host, Origin, bind address, rate), `errors.py` its typed
errors and their HTTP statuses, `server.py` the routes, `callers.py` who called it lately,
`headless.py` `liveagent-memory serve` (the bridge with the organizer scheduler, without a
window).
"""
