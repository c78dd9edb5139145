"""Pure folds of events into read models."""
