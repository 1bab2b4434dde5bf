<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * TLS failed (status 202). The message names the host and the reason in
 * words: a certificate issued by an unknown authority (give its root with the
 * `caFile` option, or install it in the system store), an expired
 * certificate, or one that does not name the host.
 */
class TlsException extends TransportException
{
}
