"""The reference SDK's paths of the two conversations (`impl.local_conversation`,
`impl.remote_conversation`), kept so its scripts run unchanged."""
