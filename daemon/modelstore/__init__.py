"""The models the box runs: the manifest, picking a model per role, verifying, fetching and quantizing."""
