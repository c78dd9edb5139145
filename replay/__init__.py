"""Rebuild, audit, export and import of the log."""
