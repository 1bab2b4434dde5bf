<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * HTTP 408: the restaurant terminal did not answer within the Timeout header; it may be offline, and the request may still be carried out later.
 */
class TerminalTimeoutException extends ApiException
{
}
