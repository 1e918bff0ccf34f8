"""The service's side: the list parameters of spec 4.2 and the signed client."""

from ..errors import checked_methods
from .client import Client

# every public method of the client refuses a keyword it lacks with a "did you mean"
# (client.profile(ico=1)), as every public class's does: applied here, where the package
# hands the class out, for any import of icoframes.api.client runs this first
checked_methods(Client)

__all__ = ["Client"]
