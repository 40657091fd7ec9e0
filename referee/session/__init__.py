"""Sessions: what the referee saw and said, recorded so that it survives a crash and an edit
shows (docs/sessions.md).

- :mod:`referee.session.recorder`: :class:`SessionRecorder` writes a session folder while
  refereeing (manifest, calibration, models, rules, the video in segments, the event log).
- :mod:`referee.session.log`: the event log with its hash chain, and checking it.
- :mod:`referee.session.segments`: the video segments and their index; reading the frames back.
- :mod:`referee.session.verify`: :func:`verify_session` (``spit-referee verify``) and
  :func:`open_session` (the intact records and frames, for disputes, reports and rejudging).
"""
