"""The procedure kit: the declaration every procedure fills in, and the one implementation of what
every procedure needs (firing, allowed steps, refusals, the recorded-transition check, rolls made
for someone with their modifiers, the game clock with its due checks, and hand-off)."""
