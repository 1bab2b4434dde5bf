<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * The proxy failed (status 206): it refused the tunnel (407: wrong or
 * missing proxy credentials; 403; 502) or could not be reached. The message
 * shows the proxy's host and port, never its password.
 */
class ProxyException extends TransportException
{
}
