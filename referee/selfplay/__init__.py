"""Self-play: two bots that play whole games, producing event logs."""

from referee.selfplay.bots import (
    INJECTABLE,
    BotProfile,
    GameTooLong,
    SelfPlay,
    SelfPlayConfig,
    selfplay_records,
)

__all__ = ["INJECTABLE", "BotProfile", "GameTooLong", "SelfPlay", "SelfPlayConfig", "selfplay_records"]
