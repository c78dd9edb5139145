"""The procedures: state machines, dice, rulesets as data and the command handler."""
