"""The full-screen game of ``ddz play`` (Textual): :mod:`ddz.play.tui.app` draws the table,
:mod:`ddz.play.tui.bridge` runs the line mode's session behind it. Importing :mod:`ddz.play`
never imports this package, so the line mode plays without Textual installed."""
