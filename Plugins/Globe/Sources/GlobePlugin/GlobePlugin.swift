// GlobePlugin: the thin adapter from GlobeCore to PluginKit. Filled in by the globe plugin issue.
