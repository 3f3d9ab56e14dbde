/* Command codes and identifiers of the 3GPP Rx application (TS 29.214), without
 * freeDiameter: for the pure rules as much as for the dictionary. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_COMMANDS_H
#define BSF_GATEWAYS_DIAMETER_RX_COMMANDS_H

#define BSF_RX_APP_ID 16777236u /* 3GPP Rx, TS 29.214 */
#define BSF_RX_VENDOR_3GPP 10415u

#define BSF_RX_CMD_AA 265u /* AAR / AAA */
#define BSF_RX_CMD_RA 258u /* RAR / RAA */
#define BSF_RX_CMD_ST 275u /* STR / STA */
#define BSF_RX_CMD_AS 274u /* ASR / ASA */

#endif
