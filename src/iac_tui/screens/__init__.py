"""Modal screens: the session picker, the setting (model/mode) picker and help."""
