package types

const VERSION = "2.32.1"
