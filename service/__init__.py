"""The doors: the hexlog command line and the HTTP API."""
