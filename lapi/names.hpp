#pragma once
// The name service of jobs that connect (MPI_Publish_name, MPI_Lookup_name,
// MPI_Unpublish_name): a server keeps service name -> port name pairs; jobs reach it at the
// port named by LAPIS_NAME_SERVER. lapirun serves one for each job it starts (and the jobs
// those spawn); jobs started apart share a daemon, `lapis_names` (tools/lapis_names.cc), as
// Open MPI's ompi-server, whose port it prints when it starts. Requests travel over a Link
// (link.hpp), so each proves the server's secret.

#include <atomic>
#include <string>
#include <string_view>

#include "lapi/status.hpp"

namespace lapi::names {

// Errc::no_connectivity when LAPIS_NAME_SERVER is unset or nothing answers there;
// Errc::set_val naming the problem when the daemon refuses (the service is published
// already, is not published, or a name is empty or too long).
Status publish(std::string_view service, std::string_view port);
Status lookup(std::string_view service, std::string& port);
Status unpublish(std::string_view service);

// The server: answers requests at `port` (opened here with PortTable::open) until `stop`
// becomes true. It is checked between requests, every `idle_ms` milliseconds while none comes
// (-1: never), and when the wait is interrupted: by a signal or by PortTable::wake. lapirun's
// thread waits with -1 and is woken, so it takes no core from the ranks between requests;
// lapis_names, stopped by a signal that may come just before it waits, checks every 200 ms.
Status serve(std::string_view port, const std::atomic<bool>& stop, int idle_ms = -1);

}  // namespace lapi::names
