// PracticePlugin: the thin adapter from PracticeCore to PluginKit. Filled in by the practice plugin issue.
