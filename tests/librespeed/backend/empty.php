<?php
// LibreSpeed's empty.php, written for runner-bench's tests: 200 with an
// empty body for any method. The pool turns PHP's own POST parsing off, so
// an upload body is read here, in 1 MiB pieces, and thrown away.
$in = fopen('php://input', 'rb');
while (!feof($in) && fread($in, 1048576) !== false) {
}
fclose($in);
header('Cache-Control: no-store, no-cache, must-revalidate, max-age=0, s-maxage=0');
header('Cache-Control: post-check=0, pre-check=0', false);
header('Pragma: no-cache');
header('Connection: keep-alive');
if (isset($_GET['cors'])) {
    header('Access-Control-Allow-Origin: *');
    header('Access-Control-Allow-Methods: GET, POST');
    header('Access-Control-Allow-Headers: Content-Encoding, Content-Type');
}
http_response_code(200);
