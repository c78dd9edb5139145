"""Encounter events."""
