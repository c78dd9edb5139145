"""The procedures hexlog runs, in order. Adding a procedure is adding its package and one line here.

The order is the order of due checks and roll modifiers: a procedure whose check must run first
(light burning down before wandering checks, exhaustion first among modifiers) comes first.
"""

from __future__ import annotations

from hexlog.machine.camp import CAMP
from hexlog.machine.campaign import CAMPAIGN
from hexlog.machine.castle import CASTLE
from hexlog.machine.chase import CHASE
from hexlog.machine.dungeon import DUNGEON
from hexlog.machine.encounter import ENCOUNTER
from hexlog.machine.hexmap import HEXMAP
from hexlog.machine.kit.registry import Registry
from hexlog.machine.timekeeping import CLOCK
from hexlog.machine.travel import TRAVEL

REGISTRY = Registry(
    (
        CAMPAIGN,
        TRAVEL,
        CLOCK,
        CAMP,
        DUNGEON,
        ENCOUNTER,
        CHASE,
        HEXMAP,
        CASTLE,
    )
)
