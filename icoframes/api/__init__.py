"""The service's side: the list parameters of spec 4.2 and the signed client."""
